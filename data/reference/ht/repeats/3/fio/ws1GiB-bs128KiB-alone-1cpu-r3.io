rchar: 51822570481
wchar: 13663
syscr: 395595
syscw: 5
read_bytes: 77824
write_bytes: 8192
cancelled_write_bytes: 0
