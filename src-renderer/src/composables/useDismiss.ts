// A popover that closes as menus do: on Escape, and on a press anywhere outside it (another
// popover's button included, so two never lie over one another). `keep` holds it open while it
// has something unsaved.
import { onBeforeUnmount, watch, type Ref } from 'vue'

export function useDismiss(root: Ref<HTMLElement | null>, open: Ref<boolean>, keep: () => boolean = () => false): void {
  const close = () => {
    if (!keep()) open.value = false
  }
  const onPointer = (e: PointerEvent) => {
    if (root.value && e.target instanceof Node && !root.value.contains(e.target)) close()
  }
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') close()
  }
  const stop = () => {
    document.removeEventListener('pointerdown', onPointer, true)
    document.removeEventListener('keydown', onKey)
  }
  watch(open, (isOpen) => {
    stop()
    if (!isOpen) return
    document.addEventListener('pointerdown', onPointer, true)
    document.addEventListener('keydown', onKey)
  })
  onBeforeUnmount(stop)
}
