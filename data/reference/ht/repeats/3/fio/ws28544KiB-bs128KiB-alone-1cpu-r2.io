rchar: 42652642309
wchar: 13660
syscr: 325634
syscw: 5
read_bytes: 32768
write_bytes: 8192
cancelled_write_bytes: 0
