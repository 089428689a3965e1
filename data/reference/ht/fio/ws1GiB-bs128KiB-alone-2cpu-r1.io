rchar: 77745466507
wchar: 18969
syscr: 593391
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
