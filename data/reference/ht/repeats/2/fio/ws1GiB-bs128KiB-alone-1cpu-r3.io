rchar: 45665725427
wchar: 13658
syscr: 348622
syscw: 5
read_bytes: 131072
write_bytes: 8192
cancelled_write_bytes: 0
