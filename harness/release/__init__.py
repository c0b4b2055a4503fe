"""The release gates (spec A.5 step 3 and the validity batteries), apart from the run code.

- `gates`: prove one task (gold path, no-op, declared-check mutations, batteries);
- `batteries`, `exploits`, `replies`, `world`: the generated cases (behavioural, equivalence, reply, exploit);
- `mutations`: the targeted mutations that kill declared checks;
- `playability`: each gold user turn within one node of the reference graph;
- `debt`: the shrinking ledger of cases the catalog still misses;
- `replay`: play a fixed trajectory through the real gateway;
- `inventory`, `suggest`: the contract inventory and the authoring aid;
- `main`: `python -m harness.benchmark_spec` (the entry point stays where CI calls it).
"""
