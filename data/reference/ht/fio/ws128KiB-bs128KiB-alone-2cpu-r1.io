rchar: 136075259002
wchar: 18984
syscr: 1038411
syscw: 5
read_bytes: 8192
write_bytes: 16384
cancelled_write_bytes: 0
