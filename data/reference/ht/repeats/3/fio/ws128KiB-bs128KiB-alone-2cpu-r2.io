rchar: 116002368579
wchar: 18978
syscr: 885263
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
