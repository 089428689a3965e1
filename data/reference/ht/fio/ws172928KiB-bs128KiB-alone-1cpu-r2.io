rchar: 24805312981
wchar: 5979
syscr: 189439
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
