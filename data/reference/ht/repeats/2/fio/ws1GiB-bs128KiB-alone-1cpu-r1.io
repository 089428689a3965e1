rchar: 47862885326
wchar: 13657
syscr: 365381
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
