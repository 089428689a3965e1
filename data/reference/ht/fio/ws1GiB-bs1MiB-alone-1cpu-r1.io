rchar: 29759703508
wchar: 5971
syscr: 28571
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
