/**
 * The flags every suite runs Debian's Chromium with (the browser tests and the VS Code e2e suite): headless,
 * no sandbox in containers, no background traffic to hosts this machine cannot reach.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
