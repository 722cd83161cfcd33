-- Query 19: the 100% projection.
SELECT DISTINCT two, four, ten, twenty, onePercent, tenPercent, twentyPercent, fiftyPercent, unique3, evenOnePercent, oddOnePercent, stringu1, stringu2, string4 FROM {a};
