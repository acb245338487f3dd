/** iPhone, iPad or iPod; iPadOS reports itself as a Mac, told apart by its touch points. */
export function isIosDevice(userAgent: string, maxTouchPoints: number): boolean {
  return /iP(hone|ad|od)/.test(userAgent) || (/Macintosh/.test(userAgent) && maxTouchPoints > 1);
}

/** The iOS version an iPhone's user agent names (`OS 18_4`), or null (iPadOS as a Mac names none). */
export function iosVersion(userAgent: string): [number, number] | null {
  const match = /\bOS (\d+)_(\d+)/.exec(userAgent);
  return match ? [Number(match[1]), Number(match[2])] : null;
}

/** The installed app: iOS's Home Screen app (`navigator.standalone`) or any browser's standalone display. */
export function isStandaloneDisplay(
  nav: Navigator = navigator,
  matches: (query: string) => boolean = (query) => window.matchMedia(query).matches,
): boolean {
  return (nav as Navigator & { standalone?: boolean }).standalone === true || matches('(display-mode: standalone)');
}
