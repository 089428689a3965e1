rchar: 29094816723
wchar: 13657
syscr: 222193
syscw: 5
read_bytes: 86016
write_bytes: 24576
cancelled_write_bytes: 0
