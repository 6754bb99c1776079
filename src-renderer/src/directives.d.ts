// The directives main.ts registers for every component, typed for the templates.
import type { vErrorDetail } from './client/errors'

declare module 'vue' {
  interface GlobalDirectives {
    vErrorDetail: typeof vErrorDetail
  }
}

export {}
