"""Analysis of what a run measured: the your-run / reference / 2009 panel (compare) and the offline
figure display (figures). Heat maps (perflab.analysis.heatmap) and the benchmarking-trap rules
(perflab.analysis.sanity) belong to this layer too. It reads data; it starts nothing."""
