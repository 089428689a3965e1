rchar: 42201361520
wchar: 13661
syscr: 322210
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
