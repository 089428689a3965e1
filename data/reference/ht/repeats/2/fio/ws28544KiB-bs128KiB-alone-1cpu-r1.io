rchar: 31518075909
wchar: 13660
syscr: 240684
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
