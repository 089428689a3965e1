rchar: 48563030483
wchar: 5974
syscr: 370696
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
