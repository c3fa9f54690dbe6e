"""The retrieval suites page: cases, pass / fail, recall@k, MRR, regressions."""
