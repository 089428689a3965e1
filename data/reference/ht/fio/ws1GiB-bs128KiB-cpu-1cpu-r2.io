rchar: 17420454345
wchar: 5974
syscr: 133095
syscw: 3
read_bytes: 0
write_bytes: 40960
cancelled_write_bytes: 0
