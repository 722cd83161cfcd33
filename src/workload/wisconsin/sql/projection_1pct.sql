-- Query 18: the 1% projection.
SELECT DISTINCT two, four, ten, twenty, onePercent, string4 FROM {a};
