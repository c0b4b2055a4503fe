"""The customer-support domain: world model (`world`), tools (`tools`), policy and graph under contracts/."""
