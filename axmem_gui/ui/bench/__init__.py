"""The retrieval bench dock: discover / recall with scores, BM25 beside, why not?"""
