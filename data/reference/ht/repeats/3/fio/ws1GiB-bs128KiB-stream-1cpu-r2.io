rchar: 41682840573
wchar: 13657
syscr: 318234
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
