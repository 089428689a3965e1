rchar: 22621555152
wchar: 5978
syscr: 1380896
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
