// The bench's reference build (HBCODE_APP_SPLITTING=off) bundles every view into the first
// screen, to measure what splitting saves (UX-5); HBCODE_APP_OUT exports it beside the real app.
const splitting = process.env.HBCODE_APP_SPLITTING !== 'off';
const exportDir = process.env.HBCODE_APP_OUT;

/**
 * The web app is a static export served by the runtime itself (no server rendering): it must
 * load offline from the service worker's cache, and the runtime is the only server.
 * @type {import('next').NextConfig}
 */
const nextConfig = {
  output: 'export',
  reactStrictMode: true,
  images: { unoptimized: true },
  poweredByHeader: false,
  typescript: { tsconfigPath: 'tsconfig.json' },
  ...(exportDir ? { distDir: exportDir } : {}),
  ...(splitting ? {} : { turbopack: { resolveAlias: { './lazy/lazyViews': './components/lazy/eagerViews.tsx' } } }),
};

export default nextConfig;
