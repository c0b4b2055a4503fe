"""Reference graph-routed agent (runtime milestone): executes `contracts/graphs/<domain>.yaml`."""
