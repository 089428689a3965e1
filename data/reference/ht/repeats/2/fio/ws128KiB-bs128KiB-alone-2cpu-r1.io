rchar: 182260444136
wchar: 18989
syscr: 1390757
syscw: 5
read_bytes: 4096
write_bytes: 16384
cancelled_write_bytes: 0
