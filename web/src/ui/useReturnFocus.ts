import { useEffect, useState } from 'react';

/**
 * For a dialog that mounts already open and unmounts on close (`{editing && <XModal opened … />}`): puts
 * the focus back on what had it when the dialog mounted, as a keyboard user expects. Mantine's Modal
 * returns the focus only when its `opened` turns false, and remembers the element only when it turns
 * true after mounting, so such a dialog left the focus on the page's body: the next Tab started over
 * from the top of the page.
 */
export function useReturnFocus(openedOnMount: boolean): void {
  // A dialog that mounts closed (`opened={x !== null}`) is Mantine's to handle.
  const [trigger] = useState(() => (openedOnMount && typeof document !== 'undefined' ? document.activeElement : null));
  useEffect(
    () => () => {
      // After the dialog's portal has gone, and only if nothing else has taken the focus meanwhile.
      window.setTimeout(() => {
        const active = document.activeElement;
        if (!(trigger instanceof HTMLElement) || !trigger.isConnected) return;
        if (active === null || active === document.body) trigger.focus({ preventScroll: true });
      }, 0);
    },
    [trigger],
  );
}
