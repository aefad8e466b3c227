"""The rank census in words (docs/contract.md, Ranks): what the agreed ranks.csv says."""
