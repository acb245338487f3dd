/** The app's colours and fonts that previewed pages may use (PRV-4), read from the live theme. */
const THEME_PROPERTIES = ['bg', 'panel', 'text', 'muted', 'line', 'accent', 'accent-text', 'ok', 'bad', 'warn', 'mono'];

export function readAppTheme(): Record<string, string> {
  const style = getComputedStyle(document.documentElement);
  const theme: Record<string, string> = {};
  for (const name of THEME_PROPERTIES) {
    const value = style.getPropertyValue(`--${name}`).trim();
    if (value) theme[`--hb-${name}`] = value;
  }
  theme['--hb-color-scheme'] = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  return theme;
}
