rchar: 43925875807
wchar: 13658
syscr: 335367
syscw: 5
read_bytes: 135168
write_bytes: 8192
cancelled_write_bytes: 0
