"""The marketing domain: world model (`world`), tools (`tools`), policy and graph under contracts/."""
