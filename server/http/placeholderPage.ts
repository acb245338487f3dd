/** Served on the app origin when the web app has not been built (`npm run build`). */
export const PLACEHOLDER_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>HB Code</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { max-width: 36rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5; }
  code { font-size: 0.95em; }
</style>
</head>
<body>
<h1>HB Code runtime</h1>
<p>The runtime is running, but the web app has not been built: run <code>npm run build</code> (or <code>npm start</code>, which builds it) and reload. Scripts connect to the WebSocket at <code>/rpc</code> with protocol v1 (see <code>docs/protocol.md</code>).</p>
</body>
</html>
`;
