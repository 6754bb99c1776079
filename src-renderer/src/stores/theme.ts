import { defineStore } from 'pinia'
import { ref, watch } from 'vue'

export type Theme = 'dark' | 'light'
const KEY = 'p4lab.theme'

/** The colour theme: dark unless the user picked light (kept in this browser's storage). */
export const useThemeStore = defineStore('theme', () => {
  const stored = localStorage.getItem(KEY)
  const theme = ref<Theme>(stored === 'light' ? 'light' : 'dark')
  watch(
    theme,
    (t) => {
      document.documentElement.dataset.theme = t
      localStorage.setItem(KEY, t)
    },
    { immediate: true },
  )
  function toggle(): void {
    theme.value = theme.value === 'dark' ? 'light' : 'dark'
  }
  return { theme, toggle }
})
