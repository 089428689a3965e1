rchar: 16240847810
wchar: 13661
syscr: 3965241
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
