rchar: 48164702673
wchar: 5975
syscr: 367657
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
