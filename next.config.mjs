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
};

export default nextConfig;
