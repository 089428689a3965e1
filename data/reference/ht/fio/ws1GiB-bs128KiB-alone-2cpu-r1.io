rchar: 70189034610
wchar: 18969
syscr: 535737
syscw: 5
read_bytes: 36864
write_bytes: 24576
cancelled_write_bytes: 0
