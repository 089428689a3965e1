rchar: 27612219861
wchar: 5977
syscr: 210854
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
