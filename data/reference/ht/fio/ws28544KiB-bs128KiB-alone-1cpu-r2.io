rchar: 33936443859
wchar: 5978
syscr: 259104
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
