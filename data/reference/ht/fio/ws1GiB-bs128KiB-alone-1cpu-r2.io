rchar: 50602552281
wchar: 13660
syscr: 386286
syscw: 5
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
