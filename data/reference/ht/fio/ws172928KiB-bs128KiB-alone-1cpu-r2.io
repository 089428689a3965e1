rchar: 44344781843
wchar: 13662
syscr: 338543
syscw: 5
read_bytes: 180224
write_bytes: 8192
cancelled_write_bytes: 0
