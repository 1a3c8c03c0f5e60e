// The demo source (DESIGN §7): a deterministic, prefix-stable simulated world of vaults,
// wallets and prices that the CLI loads with `vaultd demo` and the server extends hour by hour.
export { buildDemoRegistry, FAILING_TVL_URL } from './registry.js';
export { simulateDemo, type SimulateOptions, type SimulationSummary } from './simulate.js';
export { DEMO_DEFAULTS, demoStart, lastFullHour, assertDemoParams, type DemoParams } from './params.js';
