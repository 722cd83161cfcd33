-- Query 7: one tuple, to the screen.
SELECT * FROM {a} WHERE unique2 = {key};
