rchar: 101734788317
wchar: 18978
syscr: 776433
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
