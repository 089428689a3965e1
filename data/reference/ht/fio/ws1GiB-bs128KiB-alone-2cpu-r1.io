rchar: 87162727486
wchar: 18969
syscr: 665234
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
