// What the page says when a call fails: the core's message as a plain sentence, never with the
// call and its code appended ("... (experiments.rename: conflict)"); those stay in the title of
// the element that shows the message (v-error-detail), for whoever debugs it.
import { createSSRApp, h, withDirectives } from 'vue'
import { renderToString } from 'vue/server-renderer'
import { describe, expect, it } from 'vitest'
import { ApiCallError, asSentence, errorDetail, errorMessage, vErrorDetail } from '../../src-renderer/src/client/errors'

const TAKEN = "an experiment named 'err-a' already exists (experiment 1); choose another name"

describe('error messages on the page', () => {
  it('says what went wrong in a sentence, without the call and code', () => {
    const shown = errorMessage(new ApiCallError('experiments.rename', 'conflict', TAKEN))
    expect(shown).toBe("An experiment named 'err-a' already exists (experiment 1); choose another name.")
    expect(shown).not.toMatch(/experiments\.rename|conflict\)/)
  })

  it('keeps the call and code for the title of what shows the message, prefixed or not', () => {
    const shown = errorMessage(new ApiCallError('testbeds.remove', 'not-found', 'testbed lab7 does not exist'))
    expect(errorDetail(shown)).toBe('testbeds.remove: not-found')
    expect(errorDetail(`Could not remove: ${shown}`)).toBe('testbeds.remove: not-found')
    expect(errorDetail('Some text no call gave.')).toBeNull()
    expect(errorDetail(null)).toBeNull()
    // The same words from another call later: the latest call is named.
    errorMessage(new ApiCallError('testbeds.check', 'not-found', 'testbed lab7 does not exist'))
    expect(errorDetail(shown)).toBe('testbeds.check: not-found')
  })

  it('leaves a message that starts with a name, ends a sentence already or spans lines as written', () => {
    expect(asSentence("query: column 10: expected a value after '=', found '='")).toBe("query: column 10: expected a value after '=', found '='.")
    expect(asSentence('broken.tar.gz: archive refused: not a gzip file')).toBe('broken.tar.gz: archive refused: not a gzip file.')
    expect(asSentence("'sim' is the built-in simulator testbed; choose another name")).toBe("'sim' is the built-in simulator testbed; choose another name.")
    expect(asSentence('No connection token. Open the URL printed by `npm start` or `p4lab serve`.')).toBe('No connection token. Open the URL printed by `npm start` or `p4lab serve`.')
    expect(asSentence('spec has 2 problems:\n  line 3: load 3 is above 1\n  line 9: no link leaf9-spine0')).toBe('Spec has 2 problems:\n  line 3: load 3 is above 1\n  line 9: no link leaf9-spine0')
    expect(errorMessage(new Error('a renderer error, as it was written'))).toBe('a renderer error, as it was written')
  })

  it('puts the call and code in the title of the element the directive is on', async () => {
    const shown = errorMessage(new ApiCallError('experiments.create', 'conflict', "an experiment named 'x' already exists"))
    const render = (text: string) =>
      renderToString(createSSRApp({ render: () => withDirectives(h('p', { class: 'error' }, text), [[vErrorDetail, text]]) }))
    expect(await render(shown)).toBe(`<p class="error" title="experiments.create: conflict">An experiment named &#39;x&#39; already exists.</p>`)
    expect(await render('Fix the fields marked above.')).toBe('<p class="error">Fix the fields marked above.</p>')
  })
})
