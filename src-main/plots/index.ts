// Pure plotting shared by the renderer (@plots) and the core (result archives): the plot
// model built from compare results, and its SVG serializer.
export * from './plotdata'
export { niceTicks, plotToSvg, xmlEscape, xRange, yRange, type SvgOptions } from './svg'
