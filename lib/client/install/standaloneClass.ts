/**
 * Marks the page as the iOS Home Screen app (`ios-standalone` on the root element): there iOS 26
 * reports a bottom safe-area inset of 0 although the home indicator covers the bottom, and the
 * shell's CSS keeps a minimum (app/globals.css, PWA-5).
 */
export function markIosStandalone(root: HTMLElement = document.documentElement, nav: Navigator = navigator): boolean {
  const standalone = (nav as Navigator & { standalone?: boolean }).standalone === true;
  root.classList.toggle('ios-standalone', standalone);
  return standalone;
}
