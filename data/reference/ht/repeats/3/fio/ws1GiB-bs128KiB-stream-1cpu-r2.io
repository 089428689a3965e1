rchar: 26361399761
wchar: 5978
syscr: 201311
syscw: 3
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
