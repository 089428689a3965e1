rchar: 25258863558
wchar: 13656
syscr: 192928
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
