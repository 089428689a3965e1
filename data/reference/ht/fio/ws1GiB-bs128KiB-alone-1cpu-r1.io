rchar: 50640301004
wchar: 13661
syscr: 386573
syscw: 5
read_bytes: 2207744
write_bytes: 16384
cancelled_write_bytes: 0
