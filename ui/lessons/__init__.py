"""The app side of each lesson page X: its words, widget keys, link parameters, session state and cache policy
(rnnviz/lessons/X holds its numbers). The sampling page's, split by what each part does, is ui/sample/."""
