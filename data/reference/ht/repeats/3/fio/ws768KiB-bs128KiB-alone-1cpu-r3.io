rchar: 81778772431
wchar: 5980
syscr: 624112
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
