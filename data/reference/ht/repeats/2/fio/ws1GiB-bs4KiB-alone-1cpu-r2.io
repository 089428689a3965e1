rchar: 17414134225
wchar: 5978
syscr: 4251671
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
