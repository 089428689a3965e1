rchar: 99932810461
wchar: 18978
syscr: 762685
syscw: 5
read_bytes: 8192
write_bytes: 16384
cancelled_write_bytes: 0
