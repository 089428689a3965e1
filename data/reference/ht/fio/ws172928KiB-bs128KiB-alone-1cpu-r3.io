rchar: 41680612325
wchar: 13666
syscr: 318216
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
