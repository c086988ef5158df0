"""Each lesson page's class questions, one module a lesson: what a question says, its options and exact answer for
the page's setup, and the page's own chart at the reveal. ui/lessons/registry.py lists them with their lessons."""
